#!/usr/bin/env python3
"""stall_reasons.py on a small hand-written source page (two launches of one kernel): no GPU needed."""
import subprocess
import sys
import unittest
from pathlib import Path

TOOL = Path(__file__).parent / "stall_reasons.py"
HEADER = '"Address","Source","stall_mio","stall_wait","stall_selected","stall_mio (Not Issued)"\n'
WARM_UP = ('"Kernel Name","void ch04::<unnamed>::split_kernel<(int)8, (int)4>(const float *, int)",\n' + HEADER +
           '"0x10","FFMA R1, R2, R3, R4","0","90","10","0"\n')
TIMED = ('"Kernel Name","void ch04::<unnamed>::split_kernel<(int)8, (int)4>(const float *, int)",\n' + HEADER +
         '"0x10","MUFU.RSQ R1, R2","30","10","5","30"\n'
         '"0x20","FFMA R3, R1, R1, R4","10","40","5","10"\n')


class StallReasons(unittest.TestCase):
    def run_tool(self, page: str):
        return subprocess.run([sys.executable, TOOL], input=page, capture_output=True, text=True)

    def test_shares_of_the_last_launch_largest_first(self):
        result = self.run_tool(WARM_UP + TIMED)
        self.assertEqual(result.returncode, 0, result.stderr)
        line = result.stdout.splitlines()[-1]
        # 100 samples: wait 50, mio 40, selected 10; 30 of the 40 mio samples on the MUFU.
        self.assertEqual(line, "split_kernel<8, 4>: wait 0.50, mio 0.40, selected 0.10; mio_throttle at MUFU 0.75 of it")

    def test_a_page_without_kernels_is_one_clear_error(self):
        result = self.run_tool("not a source page\n")
        self.assertEqual(result.returncode, 2)
        self.assertIn("no 'Kernel Name' rows", result.stderr)


if __name__ == "__main__":
    unittest.main()
