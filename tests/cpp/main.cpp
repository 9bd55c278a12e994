// Catch2's main for the core/kernel tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
