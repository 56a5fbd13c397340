// target: x1k
// expect: CK0060
kernel k(n: i32, r: Out<f32>) {
    let half = n / 2;
    r = half as f32;
}
