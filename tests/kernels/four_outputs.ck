// One transform, four results.
kernel four_outputs(m: mat4, v: In<vec4>, a: Out<vec4>, b: Out<f32>, c: Out<f32>, d: Out<vec2>) {
    let p = m * v;
    a = p;
    b = p.w;
    c = length(p.xyz);
    d = p.xy / p.w;
}
