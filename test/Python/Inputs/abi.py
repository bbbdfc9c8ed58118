"""Prints a C program that prints the size and every field's offset of the
structs the Python package mirrors (`c`), or the same from the ctypes
mirrors (`python`): the two must agree, field for field."""

import sys

from mpt import _runtime as rt

if sys.argv[1] == "c":
    print("#include <stddef.h>\n#include <stdio.h>\n#include <mpt/runtime.h>")
    print("int main(void) {")
    for struct, mirror in rt.STRUCTS.items():
        print(f'  printf("{struct} %zu\\n", sizeof({struct}));')
        for field, _ in mirror._fields_:
            print(f'  printf("  {field} %zu\\n", offsetof({struct}, {field}));')
    print("  return 0;\n}")
else:
    for struct, mirror in rt.STRUCTS.items():
        print(f"{struct} {rt.ctypes.sizeof(mirror)}")
        for field, _ in mirror._fields_:
            print(f"  {field} {getattr(mirror, field).offset}")
