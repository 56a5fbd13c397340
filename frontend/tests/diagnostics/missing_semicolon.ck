// expect: CK0006
kernel k(x: In<f32>, r: Out<f32>) {
    let y = x * 2.0
    r = y;
}
