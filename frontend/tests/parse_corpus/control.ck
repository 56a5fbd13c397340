// while, loop, continue, return and nested blocks.
fn collatz_steps(start: f32) -> f32 {
    let mut n = start;
    let mut steps = 0.0;
    while n > 1.0 && steps < 1000.0 {
        if fract(n * 0.5) == 0.0 {
            n = n * 0.5;
        } else {
            n = 3.0 * n + 1.0;
        }
        steps += 1.0;
    }
    steps
}

fn first_above(limit: f32) -> f32 {
    let mut x = 0.0;
    loop {
        x += 1.5;
        if x < limit {
            continue;
        }
        return x;
    }
}

kernel steps(x: In<f32>, flag: bool, out: Out<f32>) {
    if !flag {
        out = 0.0;
        return;
    }
    let s = {
        let a = collatz_steps(floor(x * 100.0) + 1.0);
        let b = first_above(x);
        a + b
    };
    out = -s / 2.0 + (1.0 - -x);
}
