// expect: CK0041
kernel k(w: [f32; 300], r: Out<f32>) {
    r = w[0];
}
