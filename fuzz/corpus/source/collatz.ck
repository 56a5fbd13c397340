// The number of Collatz steps (n -> n/2 or 3n+1) that take floor(x) to 1,
// stopping at 200 steps.
kernel collatz(x: In<f32>, steps: Out<f32>) {
    let mut n = floor(x);
    let mut count = 0.0;
    while n > 1.0 {
        if count >= 200.0 {
            break;
        }
        let half = n * 0.5;
        n = if fract(half) == 0.0 { half } else { 3.0 * n + 1.0 };
        count += 1.0;
    }
    steps = count;
}
