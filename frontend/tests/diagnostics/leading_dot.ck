// expect: CK0005
kernel k(x: In<f32>, r: Out<f32>) {
    r = x * .5;
}
