// 3x3 box blur with gathers, and a sharpen weight.
const W: f32 = 1.0 / 9.0;

kernel blur(img: In<vec4>, sharpen: f32, out: Out<vec4>) {
    let p = index();
    let mut acc = vec4(0.0);
    acc += img[p + vec2(-1.0, -1.0)] + img[p + vec2(0.0, -1.0)] + img[p + vec2(1.0, -1.0)];
    acc += img[p + vec2(-1.0, 0.0)] + img[p] + img[index() + vec2(1.0, 0.0)];
    acc += img[p + vec2(-1.0, 1.0)] + img[p + vec2(0.0, 1.0)] + img[p + vec2(1.0, 1.0)];
    let blurred = acc * W;
    out = mix(blurred, img, sharpen);
}
