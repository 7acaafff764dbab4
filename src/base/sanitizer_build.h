// Which sanitizer a translation unit is compiled with, the same under GCC and clang: GCC
// defines __SANITIZE_ADDRESS__ and __SANITIZE_THREAD__, clang answers __has_feature.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define MARROW_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MARROW_ADDRESS_SANITIZER 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define MARROW_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MARROW_THREAD_SANITIZER 1
#endif
#endif
