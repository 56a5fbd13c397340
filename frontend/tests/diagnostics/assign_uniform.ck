// expect: CK0031
kernel k(scale: f32, a: In<f32>, r: Out<f32>) {
    scale = 2.0;
    r = a * scale;
}
