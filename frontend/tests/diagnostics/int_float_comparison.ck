// expect: CK0021
kernel k(x: In<f32>, r: Out<f32>) {
    r = if x > 0 { x } else { 0.0 };
}
