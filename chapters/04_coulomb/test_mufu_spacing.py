#!/usr/bin/env python3
"""mufu_spacing.py on a small hand-written cuobjdump -sass listing: no GPU needed."""
import subprocess
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import mufu_spacing  # noqa: E402

# Two kernels in cuobjdump's layout: the first has an outer loop (0x0040-0x01a0) around an inner
# one (0x0060-0x0160, 4 MUFU over 11 instructions) and a one-MUFU remainder loop (0x0180-0x01a0,
# an absolute branch target); the second has no loop.
LISTING = """
	code for sm_90
		Function : _Z11demo_kernelPf
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */
                                                                          /* 0x000fe40000000800 */
        /*0010*/                   S2R R0, SR_TID.X ;                     /* 0x0000000000007919 */
        /*0020*/                   MOV R2, RZ ;                           /* 0x000000ff00027202 */
        /*0030*/                   MOV R3, RZ ;                           /* 0x000000ff00037202 */
.L_x_0:
        /*0040*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;          /* 0x0000000000007b1d */
        /*0050*/                   LDS.128 R4, [RZ] ;                     /* 0x00000000ff047984 */
.L_x_1:
        /*0060*/                   MUFU.RSQ R8, R4 ;                      /* 0x0000000400087308 */
        /*0070*/                   FFMA R9, R5, R5, R6 ;                  /* 0x0000000505097223 */
        /*0080*/                   FFMA R10, R5, R5, R7 ;                 /* 0x00000005050a7223 */
        /*0090*/                   MUFU.RSQ R11, R9 ;                     /* 0x00000009000b7308 */
        /*00a0*/                   FFMA R2, R8, R4, R2 ;                  /* 0x0000000408027223 */
        /*00b0*/                   FFMA R2, R11, R4, R2 ;                 /* 0x000000040b027223 */
        /*00c0*/                   IADD3 R0, R0, 0x4, RZ ;                /* 0x0000000400007810 */
        /*00d0*/                   MUFU.RSQ R12, R10 ;                    /* 0x0000000a000c7308 */
        /*00e0*/                   MUFU.RSQ R13, R10 ;                    /* 0x0000000a000d7308 */
        /*00f0*/                   ISETP.GE.AND P0, PT, R0, 0x100, PT ;   /* 0x000001000000780c */
        /*0160*/              @!P0 BRA `(.L_x_1) ;                        /* 0xfffffffc00008947 */
        /*0170*/                   NOP ;                                  /* 0x0000000000007918 */
        /*0180*/                   MUFU.RSQ R8, R4 ;                      /* 0x0000000400087308 */
        /*0190*/              @P0 BRA 0x180 ;                             /* 0xfffffffc00000947 */
        /*01a0*/              @P1 BRA `(.L_x_0) ;                         /* 0xfffffffc00000947 */
        /*01b0*/                   EXIT ;                                 /* 0x000000000000794d */
		Function : _Z12other_kernelv
        /*0000*/                   EXIT ;                                 /* 0x000000000000794d */
"""


class MufuSpacing(unittest.TestCase):
    def setUp(self):
        self.kernels = mufu_spacing.parse(LISTING.splitlines())

    def test_finds_both_kernels_and_their_instructions(self):
        self.assertEqual([k.name for k in self.kernels], ["_Z11demo_kernelPf", "_Z12other_kernelv"])
        self.assertEqual(len(self.kernels[0].instructions), 22)
        self.assertEqual(self.kernels[0].labels[".L_x_1"], 0x60)

    def test_opcode_drops_predicate_and_modifiers(self):
        self.assertEqual(mufu_spacing.opcode("@!P0 MUFU.RSQ R5, R4"), "MUFU")
        self.assertEqual(mufu_spacing.opcode("BAR.SYNC.DEFER_BLOCKING 0x0"), "BAR")

    def test_hot_loop_is_the_innermost_with_most_mufu(self):
        body = mufu_spacing.hot_loop(self.kernels[0])
        self.assertEqual(len(body), 11)
        self.assertEqual(body.count("MUFU"), 4)
        self.assertEqual(body[-1], "BRA")
        self.assertIsNone(mufu_spacing.hot_loop(self.kernels[1]))

    def test_spacing_inside_and_across_the_back_edge(self):
        body = mufu_spacing.hot_loop(self.kernels[0])
        windows, inside, across = mufu_spacing.spacing(body)
        self.assertEqual(windows, [4])
        self.assertEqual(inside, 3)  # FFMA FFMA IADD3 between the 2nd MUFU and the 3rd
        self.assertEqual(across, 3)  # across the edge only ISETP BRA (the body starts with a MUFU): inside's 3
        windows, inside, across = mufu_spacing.spacing(["FFMA"] * 40 + ["MUFU"] + ["FFMA"] * 30)
        self.assertEqual((windows, inside, across), ([0, 1, 0], 40, 70))

    def test_command_line_reports_and_refuses_what_is_not_sass(self):
        tool = Path(__file__).parent / "mufu_spacing.py"
        done = subprocess.run([sys.executable, tool, "--kernels", "demo"], input=LISTING, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("loop 11 instructions, 4 MUFU", done.stdout)
        self.assertIn("MUFU per window: [4]", done.stdout)
        self.assertNotIn("other_kernel", done.stdout)
        bad = subprocess.run([sys.executable, tool], input="hello\n", capture_output=True, text=True)
        self.assertNotEqual(bad.returncode, 0)
        self.assertEqual(len(bad.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
