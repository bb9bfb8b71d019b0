// SPDX-License-Identifier: BSD-3-Clause
// tests/boot/fork_vtbl.cpp: the vtable address of a polymorphic object, for fork_prog's
// uniform-address check (UPC++ compares vtable pointers across ranks of a host).
struct fork_base {
    virtual ~fork_base() {}
    virtual int value() const { return 1; }
};
struct fork_derived : fork_base {
    int value() const override { return 2; }
};

extern "C" const void *fork_prog_vtable(void)
{
    static fork_derived obj;
    const fork_base *b = &obj;
    if (b->value() != 2) return nullptr;
    const void *vptr;
    __builtin_memcpy(&vptr, static_cast<const void *>(&obj), sizeof vptr);
    return vptr;
}
