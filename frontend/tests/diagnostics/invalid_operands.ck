// expect: CK0022
kernel k(n: i32, x: In<f32>, r: Out<f32>) {
    r = x * n;
}
