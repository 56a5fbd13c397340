// Chooses between the per-element maximum and minimum of two streams with a
// bool uniform, and blends them with a weight.
kernel blend(use_max: bool, weight: f32, a: In<f32>, b: In<f32>, picked: Out<f32>, mixed: Out<f32>) {
    picked = if use_max { max(a, b) } else { min(a, b) };
    mixed = select(use_max, mix(a, b, weight), mix(b, a, weight));
}
