// expect: CK0027
kernel k(a: In<f32>, r: Out<f32>) {
    if a { r = 1.0; } else { r = 0.0; }
}
