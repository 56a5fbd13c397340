// expect: CK0037
kernel k(a: In<f32>, r: Out<f32>) {
    r = a;
    break;
}
