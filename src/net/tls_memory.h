// OpenSSL's memory: OpenSSL 3.0 allocates for every TLS record it writes (three small blocks of
// its WPACKET sub-packets) and for every read, about four malloc/free pairs a request over
// HTTPS. pool_tls_memory routes OpenSSL's allocations through a BlockPool of each thread
// (common/block_pool.h), so the steady state allocates nothing.
#pragma once

namespace proofload::net {

// Call first in main, before any OpenSSL function (OpenSSL refuses once it has allocated). False,
// and OpenSSL keeps the C heap, when it could not be set, and in the sanitizer builds: there
// AddressSanitizer is to see OpenSSL's own use of the heap.
bool pool_tls_memory();

}  // namespace proofload::net
