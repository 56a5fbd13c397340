// expect: CK0007
kernel k(x: In<f32>, r: Out<f32>) {
    r = (x * 2.0;
}
