// expect: CK0049
kernel k(a: In<f32>, r: Out<f32>) {
    let mut x = 0.0;
    x + 1.0 = a;
    r = x;
}
