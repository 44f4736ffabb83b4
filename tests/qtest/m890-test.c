/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DOC: qtest of the M890 device model
 */
#include "qemu/osdep.h"
#include "libqtest.h"

static void test_nothing(void)
{
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/m890/nothing", test_nothing);
    return g_test_run();
}
