// Diffuse and specular lighting of a normal map.
kernel lighting(light: vec3, shininess: f32, n: In<vec4>, r: Out<vec4>) {
    let nn = normalize(n.xyz);
    let l = normalize(light);
    let diff = max(dot(nn, l), 0.0);
    let h = normalize(l + vec3(0.0, 0.0, 1.0));
    let spec = pow(max(dot(nn, h), 0.0), shininess);
    r = vec4(vec3(diff) + vec3(spec), 1.0);
}
