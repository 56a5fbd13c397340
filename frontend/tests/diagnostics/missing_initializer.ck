// expect: CK0039
kernel k(a: In<f32>, r: Out<f32>) {
    let y: f32;
    r = a;
}
