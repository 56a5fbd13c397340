kernel k(x: In<f32>, r: Out<f32>) {
    let mut acc = 0.0;
    for i in 0..1000 { acc = acc + x * 0.001; }
    r = acc;
}
