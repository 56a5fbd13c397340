// expect: CK0017
