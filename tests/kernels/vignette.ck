// Radial falloff around the image centre.
kernel vignette(radius: f32, softness: f32, img: In<vec4>, r: Out<vec4>) {
    let uv = index() / domain() - vec2(0.5, 0.5);
    let d = length(uv);
    let f = 1.0 - smoothstep(radius - softness, radius, d);
    r = vec4(img.rgb * f, img.a);
}
