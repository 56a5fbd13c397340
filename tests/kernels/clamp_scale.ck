// Scale and clamp a vector field, report its clamped magnitude.
kernel clamp_scale(s: f32, v: In<vec2>, r: Out<vec2>, m: Out<f32>) {
    let w = clamp(v * s, vec2(-1.0, -1.0), vec2(1.0, 1.0));
    r = w;
    m = length(w);
}
