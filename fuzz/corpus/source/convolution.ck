// A 3x3 convolution: each output is the weighted sum of the 3x3
// neighbourhood of its input element (gathers clamp at the edges).
kernel convolve3x3(w: [f32; 9], img: In<f32>, r: Out<f32>) {
    let p = index();
    let mut acc = 0.0;
    for dy in 0..3 {
        for dx in 0..3 {
            let offset = vec2((dx - 1) as f32, (dy - 1) as f32);
            acc += w[dy * 3 + dx] * img[p + offset];
        }
    }
    r = acc;
}
