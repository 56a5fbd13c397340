// expect: CK0033
kernel k(a: In<f32>, r: Out<f32>) {
    if a < 0.0 {
        return;
    }
    r = a;
}
