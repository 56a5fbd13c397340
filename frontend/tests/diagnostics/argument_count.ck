// expect: CK0015
kernel k(a: In<f32>, r: Out<f32>) {
    r = clamp(a, 0.0);
}
