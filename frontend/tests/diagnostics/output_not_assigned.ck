// expect: CK0033
kernel k(a: In<f32>, r: Out<f32>, s: Out<f32>) {
    r = a;
    if a > 0.5 {
        s = a;
    }
}
