// expect: CK0036
kernel k(a: In<f32>, r: Out<f32>) {
    r = a[3];
}
