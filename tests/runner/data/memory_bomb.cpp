// Allocates and touches memory without bound: the address-space limit must stop it.
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>
int main() {
    std::vector<char*> keep;
    for (;;) {
        char* p = new char[64 << 20];
        std::memset(p, 1, 64 << 20);
        keep.push_back(p);
    }
}
