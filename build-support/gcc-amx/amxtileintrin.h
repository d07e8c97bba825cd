/* A correction to GCC's <amxtileintrin.h>, found first on the include path
 * of llama.cpp's build (see .cargo/config.toml).
 *
 * GCC up to at least 12 declares the operand of `ldtilecfg` in
 * `_tile_loadconfig` as a pointer-sized object, so the compiler believes the
 * instruction reads 8 of the configuration's 64 bytes and deletes the stores
 * that fill in the tiles' rows and column widths. ggml's AMX kernels then
 * load a configuration with every tile empty, and their first `tilezero`
 * traps with an invalid opcode (SIGILL) on CPUs with AMX. Here the operand
 * is the whole 64-byte configuration; `_tile_storeconfig` gets the same. */
#include_next <amxtileintrin.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__AMX_TILE__)
typedef struct {
  unsigned char __bytes[64];
} __nu_agent_tile_config_bytes;

#undef _tile_loadconfig
#define _tile_loadconfig(config)                                               \
  __asm__ volatile("ldtilecfg\t%X0" ::"m"(                                     \
      *(const __nu_agent_tile_config_bytes *)(config)))

#undef _tile_storeconfig
#define _tile_storeconfig(config)                                              \
  __asm__ volatile("sttilecfg\t%X0"                                            \
                   : "=m"(*(__nu_agent_tile_config_bytes *)(config)))
#endif
