// Boost.JSON's implementation, compiled once for every binary (its header-only mode).
#include <boost/json/src.hpp>
