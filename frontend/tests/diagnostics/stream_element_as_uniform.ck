// expect: CK0050
kernel k(level: u16, r: Out<f32>) {
    r = 1.0;
}
