// expect: CK0004
kernel k(x: In<f32>, r: Out<f32>) {
    let big = 3000000000;
    r = x + big as f32;
}
