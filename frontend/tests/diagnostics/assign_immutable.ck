// expect: CK0030
kernel k(a: In<f32>, r: Out<f32>) {
    let acc = 0.0;
    acc = a * 2.0;
    r = acc;
}
