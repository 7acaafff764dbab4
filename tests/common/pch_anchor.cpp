// The one source of marrow_test_pch, the target that builds the tests' precompiled header
// (tests/CMakeLists.txt); every test program reuses that header.
