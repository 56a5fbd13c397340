// expect: CK0014
kernel k(a: In<f32>, b: In<f32>, t: f32, r: Out<f32>) {
    r = lerp(a, b, t);
}
