// Sobel edge magnitude of a grey image.
kernel sobel(img: In<f32>, r: Out<f32>) {
    let p = index();
    let tl = img[p + vec2(-1.0, -1.0)];
    let t = img[p + vec2(0.0, -1.0)];
    let tr = img[p + vec2(1.0, -1.0)];
    let l = img[p + vec2(-1.0, 0.0)];
    let rr = img[p + vec2(1.0, 0.0)];
    let bl = img[p + vec2(-1.0, 1.0)];
    let b = img[p + vec2(0.0, 1.0)];
    let br = img[p + vec2(1.0, 1.0)];
    let gx = (tr + 2.0 * rr + br) - (tl + 2.0 * l + bl);
    let gy = (bl + 2.0 * b + br) - (tl + 2.0 * t + tr);
    r = sqrt(gx * gx + gy * gy);
}
