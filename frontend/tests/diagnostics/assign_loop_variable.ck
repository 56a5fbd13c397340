// expect: CK0031
kernel k(a: In<f32>, r: Out<f32>) {
    let mut acc = 0.0;
    for i in 0..4 {
        i = 2;
        acc += a;
    }
    r = acc;
}
