// expect: CK0040
kernel k(n: i32, a: In<f32>, r: Out<f32>) {
    let mut acc = 0.0;
    for i in 0..n + 1 {
        acc += a * i as f32;
    }
    r = acc;
}
