// The translation unit that compiles PrecompiledHeaders.h (see
// cmake/PrecompiledHeaders.cmake).
