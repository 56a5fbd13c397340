// The per-lane minimum and maximum over a stream of 2-D points, as one
// reduction: lanes xy hold the minimum, zw the maximum.
reduce bounds(a: vec4, b: vec4) -> vec4 {
    vec4(min(a.xy, b.xy), max(a.zw, b.zw))
}
