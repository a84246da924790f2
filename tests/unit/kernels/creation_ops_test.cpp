// Placeholder: tests of this family come with its kernels (issue #3).
#include <doctest/doctest.h>
