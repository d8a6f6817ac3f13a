# The comb verifier (comb.c), built by `npm ci` (the project's install script)
# against the libsecp256k1 sources in the `secp256k1` package, with that
# package's own configuration (its binding.gyp, x64 branch), and keccak256
# over the XKCP sources in the `keccak` package (its branch for the
# architecture). GMP's static library is linked for the inverses when the
# machine has it (libgmp-dev: its shared library, as Debian's static one is
# not position-independent); without it, libsecp256k1's own inverses are
# used. A build that fails, or an add-on that does not load, leaves
# recovery and hashing as they were (verify.ts, native.ts).
{
  'variables': {
    'secp256k1_dir': '<!(node -p "require(\'path\').join(require(\'path\').dirname(require.resolve(\'secp256k1/package.json\')), \'src\', \'secp256k1\')")',
    # Relative: gyp's make generator takes source paths relative to this file.
    'keccak_dir': '<!(node -p "require(\'path\').relative(process.cwd(), require(\'path\').join(require(\'path\').dirname(require.resolve(\'keccak/package.json\')), \'src\'))")',
    'with_gmp': '<!(node -p "[\'/usr/lib/x86_64-linux-gnu/libgmp.so\', \'/usr/include/x86_64-linux-gnu/gmp.h\'].every(require(\'fs\').existsSync) ? 1 : 0")',
  },
  'targets': [
    {
      'target_name': 'comb',
      'sources': ['comb.c'],
      'include_dirs': ['<(secp256k1_dir)', '<(secp256k1_dir)/src'],
      'cflags': ['-O2', '-Wno-unused-function', '-Wno-nonnull-compare', '-Wno-unused-parameter'],
      'defines': [
        'ECMULT_GEN_PREC_BITS=4',
        'ECMULT_WINDOW_SIZE=15',
        'ENABLE_MODULE_RECOVERY=1',
        'USE_ENDOMORPHISM=1',
      ],
      'conditions': [
        ['target_arch=="x64" and OS!="win"', {
          'defines': ['HAVE___INT128=1', 'USE_ASM_X86_64=1', 'USE_FIELD_5X52=1', 'USE_SCALAR_4X64=1'],
        }, {
          'defines': ['USE_FIELD_10X26=1', 'USE_SCALAR_8X32=1'],
        }],
        ['target_arch in ("arm64","ppc64","x64")', {
          'sources': ['<(keccak_dir)/libkeccak-64/KeccakSpongeWidth1600.c', '<(keccak_dir)/libkeccak-64/KeccakP-1600-opt64.c'],
          'include_dirs': ['<(keccak_dir)/libkeccak-64'],
        }, {
          'sources': ['<(keccak_dir)/libkeccak-32/KeccakSpongeWidth1600.c', '<(keccak_dir)/libkeccak-32/KeccakP-1600-inplace32BI.c'],
          'include_dirs': ['<(keccak_dir)/libkeccak-32'],
        }],
        ['with_gmp==1', {
          'defines': ['USE_NUM_GMP=1', 'USE_FIELD_INV_NUM=1', 'USE_SCALAR_INV_NUM=1'],
          'libraries': ['-lgmp'],
        }, {
          'defines': ['USE_NUM_NONE=1', 'USE_FIELD_INV_BUILTIN=1', 'USE_SCALAR_INV_BUILTIN=1'],
        }],
      ],
    },
  ],
}
