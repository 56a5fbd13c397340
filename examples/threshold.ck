// Keeps the elements at or above a limit; the others are discarded and
// read back as zero.
kernel threshold(limit: f32, x: In<f32>, r: Out<f32>) {
    if x < limit {
        discard;
    }
    r = x;
}
