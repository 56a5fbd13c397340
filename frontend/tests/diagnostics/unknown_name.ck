// expect: CK0010
kernel k(x: In<f32>, r: Out<f32>) {
    let scale = 2.0;
    r = x * scal;
}
