// expect: CK0010 CK0021 CK0030
kernel k(a: In<f32>, r: Out<f32>) {
    let y = a;
    y = 2.0;
    let z = a * 3;
    r = a + w;
}
