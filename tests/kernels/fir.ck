// 1-D filter along rows with 8 taps.
kernel fir(taps: [f32; 8], x: In<f32>, r: Out<f32>) {
    let p = index();
    let mut acc = 0.0;
    for k in 0..8 {
        acc += taps[k] * x[p + vec2(k as f32 - 4.0, 0.0)];
    }
    r = acc;
}
