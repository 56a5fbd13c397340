// expect: CK0032
kernel k(a: In<f32>, r: Out<f32>) {
    r = a;
    r += 1.0;
}
