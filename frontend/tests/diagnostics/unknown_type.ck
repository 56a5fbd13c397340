// expect: CK0013
kernel k(scale: float, x: In<f32>, r: Out<f32>) {
    r = x;
}
