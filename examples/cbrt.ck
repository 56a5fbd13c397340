// Cube roots by Newton's method, stopping when the step is tiny or after
// 32 steps; also reports the number of steps taken.
kernel cbrt(x: In<f32>, root: Out<f32>, steps: Out<f32>) {
    if x == 0.0 {
        root = 0.0;
        steps = 0.0;
        return;
    }
    let a = abs(x);
    let mut y = max(a, 1.0);
    let mut n = 0.0;
    loop {
        n += 1.0;
        let next = y - (y * y * y - a) / (3.0 * y * y);
        let done = abs(next - y) <= 1e-6 * y || n >= 32.0;
        y = next;
        if done {
            break;
        }
    }
    root = sign(x) * y;
    steps = n;
}
