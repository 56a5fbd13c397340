// expect: CK0012
kernel k(x: In<f32>, x: In<f32>, r: Out<f32>) {
    r = x;
}
