/* Helpers of the config tests: temp files and where the test plugins are. */
#ifndef TEST_CONFIG_UTIL_H
#define TEST_CONFIG_UTIL_H

/* Directory of the test plugins: $TESTS_BUILDDIR/integration/.libs. */
const char *test_plugin_dir(void);
/* "<plugin dir>/NAME.so" in a static buffer. */
const char *test_plugin_path(const char *name);
/* A fresh private directory; removed with everything in it by test_tmpdir_remove(). */
char *test_tmpdir_make(void);
void test_tmpdir_remove(char *dir);
/* Write text to dir/name; returns the path (caller frees). */
char *test_file_write(const char *dir, const char *name, const char *text);

#endif
