// Gamma encoding of linear colour.
kernel gamma(g: f32, c: In<vec4>, r: Out<vec4>) {
    r = vec4(pow(c.r, g), pow(c.g, g), pow(c.b, g), c.a);
}
